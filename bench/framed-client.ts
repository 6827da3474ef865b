/**
 * The client side of bench/trivial-server.ts `--framed`: requests as length-prefixed frames
 * (`[u32 length][u32 id][payload]`, big-endian) over one long-lived TCP connection, replies matched
 * to their request by id, the frames of one tick written together. A stand-in for a framed binary
 * transport between the services, as ES's transport protocol on port 9300 carries node-to-node
 * requests, so bench/transport-ceiling.ts can price it beside undici's HTTP transports. Not used by Folio.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/modules-network.html#transport-settings
 */
import { connect, type Socket } from 'node:net';

/** One connection to a framed server; {@link call} sends a request and resolves with its reply's payload. */
export class FramedClient {
  private readonly socket: Socket;
  private readonly waiting = new Map<number, (payload: Buffer) => void>();
  private nextId = 1;
  private pending: Buffer = Buffer.alloc(0);
  private corked = false;

  /** Connects to 127.0.0.1:`port` (the connection opens in the background; calls queue until it does). */
  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
  }

  /** Sends `payload` as one frame; resolves with the reply's payload. */
  call(payload: Buffer): Promise<Buffer> {
    const id = this.nextId++;
    const frame = Buffer.allocUnsafe(8 + payload.length);
    frame.writeUInt32BE(4 + payload.length, 0);
    frame.writeUInt32BE(id, 4);
    payload.copy(frame, 8);
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(frame);
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Ends the connection. */
  close(): Promise<void> {
    return new Promise((resolve) => this.socket.end(resolve));
  }

  private read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8 && this.pending.length >= 4 + this.pending.readUInt32BE(0)) {
      const length = this.pending.readUInt32BE(0);
      const id = this.pending.readUInt32BE(4);
      const payload = this.pending.subarray(8, 4 + length);
      this.pending = this.pending.subarray(4 + length);
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(payload);
    }
  }
}
