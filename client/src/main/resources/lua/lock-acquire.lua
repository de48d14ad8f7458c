-- Take a lock if it is free (SET NX PX) and issue its fencing token in the same step.
-- KEYS[1] lock (string: the holder's value, PX expiry)   KEYS[2] token counter (integer, no expiry)
-- ARGV[1] the caller's value      ARGV[2] ttl in milliseconds
-- ARGV[3] token floor: the counter is raised to at least this first, so tokens keep growing after
--         Redis lost its data (the caller passes the highest token it has seen)
-- Returns {1, value, ttl, token} when taken; {0, current value, pttl, counter} when held.
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if current then
  return {0, current, redis.call('PTTL', KEYS[1]), counter}
end
if counter < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, ARGV[1], tonumber(ARGV[2]), token}
