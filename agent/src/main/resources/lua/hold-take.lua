-- An agent whose pod is confirmed leader takes its group's hold key, so that its gates may open.
--#include hold-value
-- ARGV[1] this take's hold: named by this call alone   ARGV[2] the term it is taken for
-- ARGV[3] the value the taker found unchanged for a whole confirmWithin by its own monotonic
--         clock, or '': that holder renewed nothing for that long, so its gates have closed
-- ARGV[4] the key's own lifetime in ms (only so that a group gone for good leaves nothing)
-- Returns {code, the value found ('' when absent), this incarnation, Redis's time in ms}:
--   1 taken, and the gates may open now: the key was released for this term or a lower one, or
--     held by the value the taker watched go stale
--   2 taken from an absent key (or another incarnation's value): the gates open only once the
--     hold has been kept a whole confirmWithin, proven by a renewal (a gate may be open on a key
--     this Redis lost)
--   0 another hold is there, or was renewed since the taker saw it (or this very take ran before:
--     the value then names its hold)
--   3 refused: the key, or the high-water mark beside it, records a newer term than this take's
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
local term = tonumber(ARGV[2])
local highest = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if term < highest or (cur and cur.term > term) then
  return {3, raw or '', inc, now}
end
if not cur then
  write(cur, 'A', term, inc, ARGV[1], ARGV[4])
  redis.call('SET', KEYS[2], term, 'PX', ARGV[4])
  tell(KEYS[1])
  return {2, raw or '', inc, now}
end
if cur.hold ~= ARGV[1] and (cur.state == 'R' or (ARGV[3] ~= '' and cur.raw == ARGV[3])) then
  write(cur, 'H', term, inc, ARGV[1], ARGV[4])
  redis.call('SET', KEYS[2], term, 'PX', ARGV[4])
  tell(KEYS[1])
  return {1, cur.raw, inc, now}
end
return {0, cur.raw, inc, now}
