import { fromJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import * as v1 from './gen/cliffhanger/events/v1/events_pb.ts';

export * from './gen/cliffhanger/events/v1/events_pb.ts';

/** The payload schema of every event type on the bus (DESIGN.md "Ownership and flow"). */
export const payloadSchemas = {
  'user.registered': v1.UserRegisteredSchema,
  'user.logged_in': v1.UserLoggedInSchema,
  'history.recorded': v1.HistoryRecordedSchema,
  'favorite.changed': v1.FavoriteChangedSchema,
  'episode.unlocked': v1.EpisodeUnlockedSchema,
  'order.created': v1.OrderCreatedSchema,
  'payment.succeeded': v1.PaymentSucceededSchema,
  'payment.failed': v1.PaymentFailedSchema,
  'subscription.started': v1.SubscriptionChangedSchema,
  'subscription.renewed': v1.SubscriptionChangedSchema,
  'subscription.canceled': v1.SubscriptionChangedSchema,
  'subscription.expired': v1.SubscriptionChangedSchema,
  'statics.hit': v1.StaticsHitSchema,
  'upload.received': v1.UploadReceivedSchema,
  'transcode.completed': v1.TranscodeCompletedSchema,
  'transcode.failed': v1.TranscodeFailedSchema,
} as const satisfies Record<string, DescMessage>;

export type EventType = keyof typeof payloadSchemas;
export const eventTypes = Object.keys(payloadSchemas) as EventType[];

/** Throws when `data` does not match the schema of `type`: an unknown field or a wrong type. */
export function checkPayload(type: EventType, data: unknown): void {
  try {
    fromJson(payloadSchemas[type], data as JsonValue);
  } catch (error) {
    throw new Error(`${type} payload does not match proto/cliffhanger/events/v1/events.proto: ${(error as Error).message}`);
  }
}
