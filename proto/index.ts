import { create, fromBinary, fromJson, ScalarType, toBinary, toJson, type DescMessage, type JsonObject, type JsonValue, type MessageInitShape } from '@bufbuild/protobuf';
import * as v1 from './gen/cliffhanger/events/v1/events_pb.ts';

export * from './gen/cliffhanger/events/v1/events_pb.ts';

/** The payload schema of every event type on the bus (docs/architecture.md "Ownership and flow"). */
export const payloadSchemas = {
  'user.registered': v1.UserRegisteredSchema,
  'user.logged_in': v1.UserLoggedInSchema,
  'history.recorded': v1.HistoryRecordedSchema,
  'favorite.changed': v1.FavoriteChangedSchema,
  'episode.unlocked': v1.EpisodeUnlockedSchema,
  'coins.credited': v1.CoinsCreditedSchema,
  'checkin.claimed': v1.CheckinClaimedSchema,
  'wallet.merged': v1.WalletMergedSchema,
  'order.created': v1.OrderCreatedSchema,
  'payment.succeeded': v1.PaymentSucceededSchema,
  'payment.failed': v1.PaymentFailedSchema,
  'order.refunded': v1.OrderRefundedSchema,
  'payment.disputed': v1.PaymentDisputedSchema,
  'payment.dispute_closed': v1.PaymentDisputeClosedSchema,
  'subscription.started': v1.SubscriptionChangedSchema,
  'subscription.renewed': v1.SubscriptionChangedSchema,
  'subscription.canceled': v1.SubscriptionChangedSchema,
  'subscription.expired': v1.SubscriptionChangedSchema,
  'subscription.past_due': v1.SubscriptionChangedSchema,
  'subscription.granted': v1.SubscriptionGrantedSchema,
  'purchases.merged': v1.PurchasesMergedSchema,
  'statics.hit': v1.StaticsHitSchema,
  'upload.received': v1.UploadReceivedSchema,
  'transcode.completed': v1.TranscodeCompletedSchema,
  'transcode.failed': v1.TranscodeFailedSchema,
  'admin.audited': v1.AdminAuditedSchema,
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

/** The version of the schema `type` is written in: its proto package's last part, e.g. "v1". */
export function schemaVersionOf(type: EventType): string {
  return payloadSchemas[type].typeName.split('.').at(-2)!;
}

/** An event's envelope as it travels on Kafka (a message's value): the binary of Event. */
export function encodeEnvelope(envelope: MessageInitShape<typeof v1.EventSchema>): Uint8Array {
  return toBinary(v1.EventSchema, create(v1.EventSchema, envelope));
}

export function decodeEnvelope(bytes: Uint8Array): v1.Event {
  return fromBinary(v1.EventSchema, bytes);
}

/** The payload as it travels on Kafka: the binary of its type's message. */
export function encodePayload(type: EventType, data: unknown): Uint8Array {
  const schema: DescMessage = payloadSchemas[type];
  return toBinary(schema, fromJson(schema, data as JsonValue));
}

/**
 * The payload of a Kafka message as producers wrote it to the outbox: protobuf JSON names, every
 * field present (a `false` or `0` too), and 64-bit integers as numbers, not the strings of proto's
 * JSON mapping, so a consumer reads the same `data` on either bus (amounts in minor units are far
 * below 2^53).
 */
export function decodePayload(type: EventType, bytes: Uint8Array): Record<string, unknown> {
  const schema: DescMessage = payloadSchemas[type];
  return int64AsNumbers(schema, toJson(schema, fromBinary(schema, bytes), { alwaysEmitImplicit: true }) as JsonObject);
}

const int64Kinds = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

function int64AsNumbers(schema: DescMessage, json: JsonObject): JsonObject {
  for (const field of schema.fields) {
    const value = json[field.jsonName];
    if (value === undefined || value === null) continue;
    if (field.fieldKind === 'scalar' && int64Kinds.has(field.scalar)) json[field.jsonName] = Number(value);
    else if (field.fieldKind === 'message') int64AsNumbers(field.message, value as JsonObject);
    else if (field.fieldKind === 'list' && field.listKind === 'message') for (const item of value as JsonObject[]) int64AsNumbers(field.message, item);
    else if (field.fieldKind === 'list' && field.listKind === 'scalar' && int64Kinds.has(field.scalar)) json[field.jsonName] = (value as string[]).map(Number);
    else if (field.fieldKind === 'map' && field.mapKind === 'message') for (const item of Object.values(value as JsonObject)) int64AsNumbers(field.message, item as JsonObject);
    else if (field.fieldKind === 'map' && field.mapKind === 'scalar' && int64Kinds.has(field.scalar))
      json[field.jsonName] = Object.fromEntries(Object.entries(value as JsonObject).map(([key, item]) => [key, Number(item)]));
  }
  return json;
}
