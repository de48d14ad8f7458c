-- Extend a lock the caller holds, or take it back when it is free and nobody acquired it since.
-- KEYS[1] lock      KEYS[2] token counter      KEYS[3] token reservation
-- KEYS[4] the replication id the reservation was made in
-- ARGV[1] the caller's value      ARGV[2] ttl in milliseconds      ARGV[3] the caller's token
-- Taking back happens when the key expired while the counter is not above the caller's token: no
-- acquisition and no release happened in between (a release raises the counter), so the caller was
-- the last holder. Only on the Redis process that holds the reservation: a restarted Redis or a
-- promoted replica may have lost later acquisitions, so there every holder has lost its lock.
-- Returns {1, value, ttl, counter} when the caller holds the lock now; else
-- {0, current value or '', pttl, counter}. Taking back publishes 'acquired <KEYS[1]>' on baton:locks.
--#include reservation
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, current, tonumber(ARGV[2]), counter}
end
if current then
  return {0, current, redis.call('PTTL', KEYS[1]), counter}
end
if counter > tonumber(ARGV[3]) or reservation(KEYS[3], KEYS[4]) < 0 then
  return {0, '', -2, counter}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', 'baton:locks', 'acquired ' .. KEYS[1])
if counter < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
  counter = tonumber(ARGV[3])
end
return {1, ARGV[1], tonumber(ARGV[2]), counter}
