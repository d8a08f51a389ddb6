// Kept equal to package.json's version (a test checks).
export const VERSION = '0.2.0';
