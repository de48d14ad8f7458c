-- Redlock, second step: raise the counter of an instance the caller holds to the token chosen over
-- the quorum, so that any later majority overlaps one instance that knows it.
-- KEYS[1] lock      KEYS[2] token counter
-- ARGV[1] the caller's value      ARGV[2] the token chosen over the quorum
-- Returns {1, value, pttl, counter} when the caller holds this instance; else
-- {0, current value or '', pttl, counter}.
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if current ~= ARGV[1] then
  return {0, current or '', redis.call('PTTL', KEYS[1]), counter}
end
if counter < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
  counter = tonumber(ARGV[2])
end
return {1, current, redis.call('PTTL', KEYS[1]), counter}
