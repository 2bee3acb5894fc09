import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { ConsoleAppContext, createConsoleApp } from './state/app';
import '@kit/web-common/base.css';
import './styles.css';

const app = createConsoleApp();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConsoleAppContext.Provider value={app}>
      <App />
    </ConsoleAppContext.Provider>
  </StrictMode>,
);
