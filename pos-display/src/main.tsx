import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { PosAppContext, createPosApp } from './state/app';
import '@kit/web-common/base.css';
import './styles.css';

const app = createPosApp();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <PosAppContext.Provider value={app}>
      <App />
    </PosAppContext.Provider>
  </StrictMode>,
);
