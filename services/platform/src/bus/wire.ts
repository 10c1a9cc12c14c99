import { decodeEnvelope, decodePayload, encodeEnvelope, encodePayload, eventTypes, payloadSchemas, schemaVersionOf, type EventType } from '@cliffhanger/proto';
import { utmOf } from '../context.ts';
import type { BusEvent } from './events.ts';

/**
 * An event on Kafka (services/platform/README.md, "Events on Kafka"): the value is the binary
 * protobuf `Event` envelope whose `payload` is the binary of the type's message; the headers say
 * how to read it without decoding the value, so a consumer skips the types it does not read and
 * decodes the others with the schema its `ce-type` names.
 */
export const CONTENT_TYPE = 'application/x-protobuf';

export interface WireMessage {
  /** The user id, or the event id when no user caused it: one user's events share a partition. */
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/** Kafka headers as kafkajs hands them to a consumer. */
export type WireHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

/** The family of an event type, the part before the dot: `favorite.changed` → `favorite`. */
export const familyOf = (type: string) => type.slice(0, type.indexOf('.'));

/** Every event of a family shares one topic, so one user's events of a family keep their order. */
export const topicOf = (type: EventType, prefix = 'cliffhanger') => `${prefix}.${familyOf(type)}`;

/** The topics of every event type, what a reader of the whole stream subscribes to. */
export const eventTopics = (prefix = 'cliffhanger') => [...new Set(eventTypes.map((type) => topicOf(type, prefix)))];

export function encodeEvent(event: BusEvent): WireMessage {
  const envelope = encodeEnvelope({
    id: event.id,
    type: event.type,
    time: event.time,
    userId: event.userId ?? undefined,
    attribution: {
      referrerToken: event.attribution.referrerToken ?? undefined,
      fbclid: event.attribution.fbclid ?? undefined,
      ttclid: event.attribution.ttclid ?? undefined,
      ...utmOf(event.attribution),
    },
    payload: encodePayload(event.type, event.data),
    traceparent: event.traceparent,
  });
  return {
    key: event.userId ?? event.id,
    value: Buffer.from(envelope),
    headers: {
      'ce-id': event.id,
      'ce-type': event.type,
      'content-type': CONTENT_TYPE,
      'schema-version': schemaVersionOf(event.type),
      ...(event.traceparent && { traceparent: event.traceparent }),
    },
  };
}

export function headerOf(headers: WireHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/** The event type a message's header names, when it is one this code knows. */
export function typeOf(headers: WireHeaders | undefined): EventType | undefined {
  const type = headerOf(headers, 'ce-type');
  return type !== undefined && Object.hasOwn(payloadSchemas, type) ? (type as EventType) : undefined;
}

/** Reads an event back; throws on another content type, an unknown type or bytes that do not decode. */
export function decodeEvent(value: Buffer | null, headers: WireHeaders | undefined): BusEvent {
  const contentType = headerOf(headers, 'content-type');
  if (contentType !== CONTENT_TYPE) throw new Error(`unreadable event: content-type ${contentType ?? 'missing'}, expected ${CONTENT_TYPE}`);
  const type = typeOf(headers);
  if (!type) throw new Error(`unreadable event: unknown ce-type ${headerOf(headers, 'ce-type') ?? 'missing'}`);
  if (!value?.length) throw new Error('unreadable event: no value');
  const envelope = decodeEnvelope(value);
  if (!envelope.id) throw new Error('unreadable event: no id in its envelope');
  return {
    id: envelope.id,
    type,
    time: envelope.time,
    userId: envelope.userId ?? null,
    attribution: {
      referrerToken: envelope.attribution?.referrerToken ?? null,
      fbclid: envelope.attribution?.fbclid ?? null,
      ttclid: envelope.attribution?.ttclid ?? null,
      ...utmOf(envelope.attribution),
    },
    data: decodePayload(type, envelope.payload),
    ...(envelope.traceparent && { traceparent: envelope.traceparent }),
  };
}
