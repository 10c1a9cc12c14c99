import type { OrderStatus } from '../../api/types';
import type { MessageKey } from '../../i18n/en';

type Status = OrderStatus | 'requires_action';

const STATUS_TEXT: Record<Status, MessageKey> = {
  created: 'result.pending',
  requires_action: 'result.pending',
  succeeded: 'result.succeeded',
  failed: 'result.failed',
  canceled: 'result.canceled',
  refunded: 'result.refunded',
};

export function orderStatusText(status: string): MessageKey {
  return STATUS_TEXT[status as Status] ?? 'result.pending';
}
