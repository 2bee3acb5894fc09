/** The cashier's login: the shared login screen with the display's words and test ids. */
import { LoginScreen as SharedLoginScreen } from '@kit/web-common/LoginScreen';
import { usePosApp } from '../state/app';
import { useT } from '../i18n/use-t';
import { LangSwitch } from './LangSwitch';

const TEST_IDS = { user: 'login-user', pw: 'login-pw', message: 'login-message', submit: 'login-submit' };

export function LoginScreen() {
  const { session } = usePosApp();
  return <SharedLoginScreen session={session} t={useT()} langSwitch={<LangSwitch />} testIds={TEST_IDS} submitClassName="primary big" />;
}
