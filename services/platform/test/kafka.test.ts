import fs from 'node:fs';
import { afterAll } from 'vitest';
import { createKafkaBus } from '../src/index.ts';
import { silentLogger } from '../src/testing.ts';
import { busContract } from './bus.contract.ts';

// The Kafka adapter runs the bus contract against a real broker started by testcontainers.
// Machines without a Docker engine (this project's CI among them) skip it and say why.
const dockerEngine = Boolean(process.env.DOCKER_HOST) || fs.existsSync('/var/run/docker.sock');
const skip = dockerEngine ? undefined : 'no Docker engine found (no DOCKER_HOST, no /var/run/docker.sock): Kafka contract skipped';
if (skip) console.warn(skip);

let brokers: string[] = [];
if (dockerEngine) {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer('confluentinc/cp-kafka:7.6.1').withKraft().start();
  brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
  afterAll(() => container.stop());
}

busContract('Kafka (testcontainers)', (database) => createKafkaBus(database, silentLogger, { brokers, clientId: 'contract', pollMs: 50 }), skip);
