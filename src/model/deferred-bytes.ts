/** Bytes kept out of memory (in a spill file), read again when asked for; their size is known without reading them. */
export interface DeferredBytes {
  readonly size: number;
  read(): Uint8Array;
}

/** Bytes in memory, or deferred. */
export type SomeBytes = Uint8Array | DeferredBytes;

/** Whether `bytes` wait in a spill file rather than in memory. */
export function isDeferred(bytes: SomeBytes): bytes is DeferredBytes {
  return !(bytes instanceof Uint8Array);
}

/** The bytes themselves (read when deferred). */
export function bytesOf(bytes: SomeBytes): Uint8Array {
  return isDeferred(bytes) ? bytes.read() : bytes;
}

/** How many bytes, without reading deferred ones. */
export function sizeOf(bytes: SomeBytes): number {
  return isDeferred(bytes) ? bytes.size : bytes.byteLength;
}
