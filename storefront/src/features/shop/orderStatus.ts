import type { MessageKey } from '../../i18n/en';

type Status = 'created' | 'succeeded' | 'failed' | 'canceled' | 'requires_action';

const STATUS_TEXT: Record<Status, MessageKey> = {
  created: 'result.pending',
  requires_action: 'result.pending',
  succeeded: 'result.succeeded',
  failed: 'result.failed',
  canceled: 'result.canceled',
};

export function orderStatusText(status: string): MessageKey {
  return STATUS_TEXT[status as Status] ?? 'result.pending';
}
