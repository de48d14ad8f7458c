-- An agent whose pod is confirmed leader takes its group's gate key, so that its gate may open.
-- KEYS[1] the gate key, baton:{gate:<namespace>/<group>}
-- KEYS[2] beside it, the highest term any take wrote (...:term): it outlives a deletion of the
--         gate key, and a snapshot restores an older one, which is still a lower bound
-- ARGV[1] this hold (fresh for every take)   ARGV[2] the term it is taken for
-- ARGV[3] the value the taker found unchanged for a whole confirmWithin by its own monotonic
--         clock, or '': that holder renewed nothing for that long, so its gate has closed
-- ARGV[4] the key's own lifetime in ms (only so that a group gone for good leaves nothing)
-- Returns {code, the value found ('' when absent), this incarnation, Redis's time in ms}:
--   1 taken, and the gate may open now: the key was released for this term or a lower one, or
--     held by the value the taker watched go stale
--   2 taken from an absent key (or another incarnation's value): the gate opens only once the
--     hold has been kept a whole confirmWithin, proven by a renewal (a gate may be open on a key
--     this Redis lost)
--   0 another hold is there, or was renewed since the taker saw it
--   3 refused: the key, or the high-water mark beside it, records a newer term than this take's
--#include gate-value
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
local term = tonumber(ARGV[2])
local highest = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if term < highest or (cur and cur.term > term) then
  return {3, raw or '', inc, now}
end
if not cur then
  write(KEYS[1], 'A', term, 0, inc, ARGV[1], ARGV[4])
  redis.call('SET', KEYS[2], term, 'PX', ARGV[4])
  tell(KEYS[1])
  return {2, raw or '', inc, now}
end
if cur.state == 'R' or (ARGV[3] ~= '' and cur.raw == ARGV[3]) then
  write(KEYS[1], 'H', term, 0, inc, ARGV[1], ARGV[4])
  redis.call('SET', KEYS[2], term, 'PX', ARGV[4])
  tell(KEYS[1])
  return {1, cur.raw, inc, now}
end
return {0, cur.raw, inc, now}
