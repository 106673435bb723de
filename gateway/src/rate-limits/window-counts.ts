/**
 * What the shared count of a client's window answers when a gateway asks it for calls: some granted (never past the
 * limit: `used` counts every gateway's grants, these included), none left, or no answer just now.
 */
export type Lease =
  { kind: 'granted'; units: number; used: number } | { kind: 'spent'; used: number } | { kind: 'unavailable' };

/** The count of calls granted in each client's current window, shared by every gateway. */
export interface WindowCounts {
  /**
   * Grants up to `units` more calls in window number `window` of the client `key`, so that the window's count never
   * passes `limit`. A key's count starts at 0 in each new window.
   */
  take(key: string, window: number, units: number, limit: number): Promise<Lease>;
}
