import { useEffect } from 'react';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { LoginScreen } from './LoginScreen';
import { Shell } from './Shell';

export function App() {
  const { session } = useConsoleApp();
  const phase = useStore(session, (s) => s.phase);
  const t = useT();
  useEffect(() => {
    void session.getState().restore();
  }, [session]);
  if (phase === 'checking') return <p className="loading">{t('app.loading')}</p>;
  return phase === 'loggedIn' ? <Shell /> : <LoginScreen />;
}
