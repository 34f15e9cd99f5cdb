import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { openAmqp } from './amqp.js';

/**
 * One process's way to the broker for everything but consuming: a connection
 * and two channels (a confirm channel to publish on, a plain one to read
 * queues with), opened when first needed and again after the broker closed
 * them (a restarted server, a channel error), so a producer or a watcher
 * outlives a restart of RabbitMQ as its users' clients do.
 */
export class BrokerLink {
  private connection: ChannelModel | undefined;
  private opening: Promise<{ publish: ConfirmChannel; read: Channel }> | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly heartbeatSeconds: number,
  ) {}

  /** The open channels, opening them first when there are none. */
  channels(): Promise<{ publish: ConfirmChannel; read: Channel }> {
    if (this.closed) return Promise.reject(new Error('the connection to RabbitMQ was closed'));
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  private async open(): Promise<{ publish: ConfirmChannel; read: Channel }> {
    const connection = await openAmqp(this.url, this.heartbeatSeconds);
    this.connection = connection;
    const forget = () => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.opening = undefined;
      }
    };
    connection.on('close', forget);
    const publish = await connection.createConfirmChannel();
    const read = await connection.createChannel();
    for (const channel of [publish, read]) {
      channel.on('error', () => {});
      channel.on('close', () => {
        forget();
        void connection.close().catch(() => {});
      });
    }
    return { publish, read };
  }

  /**
   * A channel of its own on this connection, for messages looked at and given
   * back: what it took unacknowledged goes back to its queue when it closes.
   * The caller closes it.
   */
  async scratchChannel(): Promise<Channel> {
    await this.channels();
    const connection = this.connection;
    if (!connection) throw new Error('the connection to RabbitMQ closed while opening a channel');
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    return channel;
  }

  /** A connection of its own, for what must not share one (a consumer; a manual holder, whose channel is its hold on a message). */
  async dedicated(): Promise<ChannelModel> {
    return openAmqp(this.url, this.heartbeatSeconds);
  }

  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.connection = undefined;
    this.opening = undefined;
    await connection?.close().catch(() => {});
  }
}
