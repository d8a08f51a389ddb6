// A React 19 app (no JSX, so Vite needs no plugin) rendering every element with string
// attributes, as `<attention-matrix value="[[…]]">` in TSX would.
import { createElement as h, useRef, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import 'attention-wasm/elements';
import { CASES, compareWithTwins } from './frameworks.js';

function App() {
  const box = useRef(null);
  useEffect(() => {
    compareWithTwins([...box.current.children]).then((result) => {
      document.getElementById('out').textContent = JSON.stringify(result);
    });
  }, []);
  return h(
    'div',
    { ref: box },
    CASES.map(([tag, attributes], i) => h(tag, { key: i, ...attributes })),
  );
}

createRoot(document.getElementById('root')).render(h(App));
