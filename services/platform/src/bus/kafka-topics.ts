import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';

/** How the event topics are made when the relay first reaches a broker (README, "For operators"). */
export interface TopicSettings {
  /** Partitions per topic: a consumer group reads a partition with one member, so this caps a consumer's replicas. */
  partitions: number;
  replication: number;
  retentionHours: number;
}

export const defaultTopicSettings: TopicSettings = { partitions: 12, replication: 3, retentionHours: 168 };

/**
 * Creates the event topics with their partitions, replication and retention, so none is left to
 * the broker's auto-creation (one partition, the broker's retention). A topic that exists keeps
 * its settings. A broker that refuses (no rights, topics managed by Strimzi's KafkaTopic
 * resources, librdkafka's mock cluster, too few brokers for the replication) is told in the log and
 * tolerated: the topics are then made elsewhere or on first use. Throws only when the broker cannot
 * be reached, which the relay waits out like any outage.
 */
export async function createEventTopics(kafka: Kafka, topics: string[], settings: TopicSettings, logger: Logger): Promise<void> {
  const admin = kafka.admin({ retry: { retries: 2, initialRetryTime: 250 } });
  await admin.connect();
  try {
    const created = await admin.createTopics({
      waitForLeaders: false,
      timeout: 10_000,
      topics: topics.map((topic) => ({
        topic,
        numPartitions: settings.partitions,
        replicationFactor: settings.replication,
        configEntries: [{ name: 'retention.ms', value: String(settings.retentionHours * 3_600_000) }],
      })),
    });
    logger.info({ topics, ...settings }, created ? 'kafka: event topics created' : 'kafka: event topics already there');
  } catch (error) {
    logger.warn({ err: error, topics }, 'kafka: event topics not created here (refused by the broker); they are made elsewhere or on first use with the broker defaults');
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
