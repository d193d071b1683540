// The service clock. Presale status, unlocks and launches are judged by the service's clock,
// which is not the device's: the device's may be off, and a local service can be moved
// forward (time travel). Every answer the clients read carries the service's time
// (`x-service-time`, and `serviceTime` in each live message); the offset learned from the
// latest one makes `serviceNow()`, which the view models count down with by default.

let offsetMs = 0;
let learned = false;

/** The service's clock now, in UNIX ms: `Date.now()` plus the offset learned from the service. */
export function serviceNow(): number {
  return Date.now() + offsetMs;
}

/** The offset of the service's clock from this device's, in ms (0 until an answer arrived). */
export function serviceClockOffset(): number {
  return offsetMs;
}

/** Whether an answer of the service has told its time yet. */
export function serviceClockKnown(): boolean {
  return learned;
}

/**
 * Notes the service's time `serviceMs`, read from an answer sent at `sentAt` and received at
 * `receivedAt` (device ms): the service wrote it about half-way. The latest reading wins,
 * because the service's clock can jump (time travel).
 */
export function noteServiceTime(serviceMs: number, sentAt: number, receivedAt: number = sentAt): void {
  if (!Number.isFinite(serviceMs) || serviceMs <= 0) return;
  offsetMs = Math.round(serviceMs - (sentAt + (receivedAt - sentAt) / 2));
  learned = true;
}
