import { useEffect } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { LoginScreen } from './LoginScreen';
import { Shell } from './Shell';

export function App() {
  const { session } = usePosApp();
  const phase = useStore(session, (s) => s.phase);

  // A reload comes back logged in (the cookie) and on the same screen (the URL hash).
  useEffect(() => {
    void session.getState().restore();
  }, [session]);

  if (phase === 'checking') return <main className="splash" aria-busy="true">Loading…</main>;
  if (phase === 'loggedOut') return <LoginScreen />;
  return <Shell />;
}
