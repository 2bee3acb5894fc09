import type { PropsWithChildren } from 'react';
import './app.css';

function App({ children }: PropsWithChildren) {
  // `children` is the page being shown.
  return children;
}

export default App;
