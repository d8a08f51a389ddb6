// scripts/element-shots.mjs's tiles of a tall 390 px screenshot (issue 45: the 7,657 px
// explainer shrank to unreadable in a viewer): at most 1,600 px each, covering the page, each
// sharing a strip with the next so that no line is only cut.
import test from 'node:test';
import assert from 'node:assert/strict';
import { tileRanges, TILE_HEIGHT, TILE_OVERLAP } from '../scripts/element-shots.mjs';

test('tiles of a tall screenshot: none when it fits, else at most 1,600 px each, from 0 to the end, overlapping by 48 px', () => {
  assert.equal(TILE_HEIGHT, 1600);
  assert.equal(TILE_OVERLAP, 48);
  assert.deepEqual(tileRanges(900), []);
  assert.deepEqual(tileRanges(1600), []);
  // 1,601 px: two tiles of (1,601 − 48) / 2 → 777 px steps, each 777 + 48 px tall but the last
  assert.deepEqual(tileRanges(1601), [
    [0, 825],
    [777, 824],
  ]);
  for (const height of [1601, 3905, 7657, 16000]) {
    const tiles = tileRanges(height);
    assert.equal(tiles[0][0], 0);
    const [top, h] = tiles.at(-1);
    assert.equal(top + h, height, `${height}: the last tile ends at the page's end`);
    for (const [, tall] of tiles) assert.ok(tall <= 1600, `${height}: a tile of ${tall} px`);
    for (let n = 1; n < tiles.length; n++)
      assert.equal(
        tiles[n - 1][0] + tiles[n - 1][1] - tiles[n][0],
        48,
        `${height}: tiles ${n - 1} and ${n} share 48 px`,
      );
    // as few tiles as 1,552 px of new page each allows
    assert.equal(tiles.length, Math.ceil((height - 48) / 1552));
  }
});
