import { useEffect } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { LoginScreen } from './LoginScreen';
import { Shell } from './Shell';

export function App() {
  const { session } = usePosApp();
  const phase = useStore(session, (s) => s.phase);
  const t = useT();

  // A reload comes back logged in (the cookie) and on the same screen (the URL hash).
  useEffect(() => {
    void session.getState().restore();
  }, [session]);

  if (phase === 'checking')
    return (
      <main className="splash" aria-busy="true">
        {t('app.loading')}
      </main>
    );
  if (phase === 'loggedOut') return <LoginScreen />;
  return <Shell />;
}
