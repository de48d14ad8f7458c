-- Read a lock, and raise its token counter to the floor when it is lower (Redis lost its data), so
-- holders that acquire next get tokens above every token the caller has seen.
-- KEYS[1] lock      KEYS[2] token counter      ARGV[1] token floor (0: change nothing)
-- Returns {0, current value or '', pttl, counter as it was before raising}.
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if counter < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[2], ARGV[1])
end
return {0, current or '', redis.call('PTTL', KEYS[1]), counter}
