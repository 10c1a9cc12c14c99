import { spawn, spawnSync } from 'node:child_process';

/**
 * librdkafka's mock cluster, run by Debian's kcat (`apt-get install kcat`): brokers that speak the
 * real Kafka protocol on loopback, with no JVM and no Docker engine. kcat consumes a `keepalive`
 * topic to keep the cluster up and prints its bootstrap servers. What the mock lacks for kafkajs:
 * the idempotent producer (InitProducerId) and admin createTopics; topics are created on first use.
 */
export interface KafkaMockCluster {
  brokers: string[];
  /**
   * An outage: the brokers' process is stopped (SIGSTOP). Connections stay open and new ones are
   * accepted by the kernel, but nothing is answered, as with a broker hung or cut off by the network;
   * what the cluster holds (topics, offsets, groups) is kept for `resume`.
   */
  pause(): void;
  /** The end of the outage (SIGCONT): the brokers answer again, from where they were. */
  resume(): void;
  stop(): Promise<void>;
}

export const kcatInstalled = () => !spawnSync('kcat', ['-V'], { stdio: 'ignore' }).error;

export function startKafkaMockCluster(brokerCount = 3, timeoutMs = 15_000): Promise<KafkaMockCluster> {
  const child = spawn('kcat', ['-X', `test.mock.num.brokers=${brokerCount}`, '-b', '127.0.0.1:1', '-C', '-t', 'keepalive', '-q'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let log = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`the Kafka mock cluster did not start: ${why}\n${log.slice(-2_000)}`));
    };
    const timer = setTimeout(() => fail(`no bootstrap servers within ${timeoutMs} ms`), timeoutMs);
    const exitedEarly = (code: number | null, signal: string | null) => fail(`kcat exited (${signal ?? code})`);
    child.once('error', (error) => fail(error.message));
    child.once('exit', exitedEarly);
    let started = false;
    // librdkafka announces the cluster at notice level ("... replaced with host:port,...") and,
    // with `-d mock`, at debug level ("bootstrap.servers=host:port,..."). stderr is drained to the end.
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (started) return;
      if (log.length < 20_000) log += chunk;
      const found = /(?:bootstrap\.servers=|replaced with )((?:[\w.-]+:\d+,?)+)/.exec(log);
      if (!found) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      resolve({
        brokers: found[1]!.split(',').filter(Boolean),
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
        stop,
      });
    });
  });
}
