import { useMemo, useRef, useState } from 'react';
import { Button, Text, View } from '@tarojs/components';
import { useLoad, useUnload } from '@tarojs/taro';
import { displayAmount, PayFlow, statusText, type LaunchOptions, type PayView } from './pay-flow';
import './index.css';

export default function PayPage() {
  const [view, setView] = useState<PayView>({ kind: 'loading' });
  const flow = useMemo(() => new PayFlow({ onChange: setView }), []);
  const options = useRef<LaunchOptions>({});

  useLoad((opts: LaunchOptions) => {
    options.current = opts ?? {};
    void flow.start(options.current);
  });
  useUnload(() => flow.stop());

  const order = 'order' in view ? view.order : undefined;
  return (
    <View className='pay'>
      {order && (
        <View className='pay__order'>
          <Text className='pay__merchant' data-testid='mp-merchant'>{order.merchantDisplayName}</Text>
          <Text className='pay__amount' data-testid='mp-amount'>{displayAmount(order.totalAmount)}</Text>
          {order.disconut && order.disconut !== '0.00' && (
            <Text className='pay__discount' data-testid='mp-discount'>Discount {displayAmount(order.disconut)}</Text>
          )}
        </View>
      )}
      <View className={`pay__status pay__status--${view.kind}`} data-testid='mp-status' data-state={view.kind}>
        <Text>{statusText(view)}</Text>
      </View>
      {view.kind === 'ready' && view.notice && (
        <View className='pay__notice' data-testid='mp-notice' data-notice={view.notice.kind}>
          <Text>{view.notice.kind === 'cancelled' ? 'Payment cancelled. You can pay again.' : `Payment failed: ${view.notice.msg}`}</Text>
        </View>
      )}
      {(view.kind === 'ready' || view.kind === 'paying') && (
        <Button
          className='pay__button'
          data-testid='mp-pay'
          type='primary'
          disabled={view.kind === 'paying'}
          loading={view.kind === 'paying'}
          onClick={() => void flow.pay()}
        >
          Pay {order ? displayAmount(order.totalAmount) : ''}
        </Button>
      )}
      {view.kind === 'error' && (
        <Button className='pay__button' data-testid='mp-retry' onClick={() => void flow.retry(options.current)}>
          Try again
        </Button>
      )}
    </View>
  );
}
