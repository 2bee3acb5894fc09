/** How a protocol-v2 notification route is described in the API reference: XML both ways. */
import { xml } from '../../../openapi/describe';
import type { NotificationDoc } from '../provider';

/** `who`: the realms that speak it, as the descriptions name them. */
export function v2NotificationDoc(who: string): NotificationDoc {
  return {
    protocol: 'Protocol v2',
    body: xml(`Protocol v2 (${who}): the XML notification, signed by the channel (\`sign\`)`),
    ack: {
      status: 200,
      description: 'Protocol v2: acknowledged',
      content: xml('Protocol v2: `<xml><return_code>SUCCESS</return_code><return_msg>OK</return_msg></xml>`, so the channel stops repeating it'),
    },
    refusal: xml('Protocol v2: `<xml><return_code>FAIL</return_code><return_msg>…</return_msg></xml>`; the channel repeats the notification'),
  };
}
