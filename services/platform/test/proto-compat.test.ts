import { additions, committedSnapshot, currentSnapshot, incompatibilities, type FieldSnapshot } from '@cliffhanger/proto/compat';
import { describe, expect, it } from 'vitest';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

// Events outlive the code that wrote them (Kafka keeps them, the outbox replays them), so proto/
// may only grow: proto/compat/fields.json records every field, and `npm run proto` refuses to
// record a break.
describe('the event schemas stay compatible with what is on the wire', () => {
  const committed = committedSnapshot();
  const current = currentSnapshot();
  const message = 'cliffhanger.events.v1.FavoriteChanged';
  const changed = (change: (snapshot: FieldSnapshot) => void) => {
    const copy = structuredClone(current);
    change(copy);
    return copy;
  };

  it('the generated code renumbers, retypes and removes no recorded field', () => {
    expect(incompatibilities(committed, current)).toEqual([]);
  });

  it('every field of the generated code is recorded (npm run proto records new ones)', () => {
    expect(additions(committed, current)).toEqual([]);
  });

  it('catches a renumbered field', () => {
    const renumbered = changed((snapshot) => void (snapshot[message]!.favorite!.number = 3));
    expect(incompatibilities(committed, renumbered)).toEqual([`${message}.favorite was renumbered from 2 to 3`]);
  });

  it('catches a retyped field, and a removed field or message', () => {
    const broken = changed((snapshot) => {
      snapshot[message]!.video_id!.type = 'int64';
      delete snapshot['cliffhanger.events.v1.Money']!.currency;
      delete snapshot['cliffhanger.events.v1.CheckinClaimed'];
    });
    expect(incompatibilities(committed, broken)).toEqual([
      `${message}.video_id (field 1) was retyped from string to int64`,
      'cliffhanger.events.v1.Money.currency (field 2) was removed',
      'cliffhanger.events.v1.CheckinClaimed was removed',
    ]);
  });

  it('lets a field be added', () => {
    const grown = changed((snapshot) => void (snapshot[message]!.source = { number: 3, type: 'string' }));
    expect(incompatibilities(committed, grown)).toEqual([]);
    expect(additions(committed, grown)).toEqual([`${message}.source`]);
  });
});
