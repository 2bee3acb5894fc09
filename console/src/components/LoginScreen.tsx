/** The console's login: the shared login screen with the console's words, its lead line and test ids. */
import { LoginScreen as SharedLoginScreen } from '@kit/web-common/LoginScreen';
import { useConsoleApp } from '../state/app';
import { useT } from '../i18n/use-t';
import { LangSwitch } from './LangSwitch';

const TEST_IDS = { user: 'console-login-id', pw: 'console-login-pw', message: 'console-login-message', submit: 'console-login-submit' };

export function LoginScreen() {
  const { session } = useConsoleApp();
  const t = useT();
  return <SharedLoginScreen session={session} t={t} lead={t('login.lead')} langSwitch={<LangSwitch />} testIds={TEST_IDS} submitClassName="primary" />;
}
