import { isOverdue, shownStatus } from './order-expiry';

test('an active order past its time is overdue and shown as cancel; any other order shows its own status', () => {
  const now = 1_000_000;
  expect(isOverdue({ status: 'active', expire_at: now }, now)).toBe(true);
  expect(isOverdue({ status: 'active', expire_at: now + 1 }, now)).toBe(false);
  expect(isOverdue({ status: 'finish', expire_at: now - 1 }, now)).toBe(false);
  expect(shownStatus({ status: 'active', expire_at: now - 1 }, now)).toBe('cancel');
  expect(shownStatus({ status: 'active', expire_at: now + 1 }, now)).toBe('active');
  expect(shownStatus({ status: 'refunded', expire_at: now - 1 }, now)).toBe('refunded');
});
