-- Take a lock if it is free (SET NX PX) and issue its fencing token in the same step.
-- KEYS[1] lock (string: the holder's value, PX expiry)   KEYS[2] token counter (integer, no expiry)
-- KEYS[3] token reservation (see the reservation fragment)
-- KEYS[4] the replication id the reservation was made in
-- ARGV[1] the caller's value      ARGV[2] ttl in milliseconds
-- ARGV[3] token floor: the highest token the caller has seen; the counter is raised to it first
-- ARGV[4] (optional) the highest reservation the caller knows was recorded durably, as for terms
--         (lease-acquire.lua): a reservation below it here refuses. The operator passes it;
--         applications do not know it and pass 0.
-- Returns {1, value, ttl, token, ceiling} when taken; {0, current value, pttl, counter, ceiling} when
-- held; {-1, '', -2, counter, ceiling} when no reservation on this Redis covers the next token (the
-- operator reserves more; the caller tries again).
-- Publishes 'acquired <KEYS[1]>' or 'unreserved <KEYS[1]>' on baton:locks, so the operator that
-- watches the lock acts at once (reports the holder, reserves tokens).
--#include reservation
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
local ceiling = reservation(KEYS[3], KEYS[4])
if current then
  return {0, current, redis.call('PTTL', KEYS[1]), counter, ceiling}
end
local floor = tonumber(ARGV[3])
if math.max(counter, floor) + 1 > ceiling or ceiling < tonumber(ARGV[4] or '0') then
  redis.call('PUBLISH', 'baton:locks', 'unreserved ' .. KEYS[1])
  return {-1, '', -2, counter, ceiling}
end
if counter < floor then
  redis.call('SET', KEYS[2], ARGV[3])
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', 'baton:locks', 'acquired ' .. KEYS[1])
return {1, ARGV[1], tonumber(ARGV[2]), token, ceiling}
