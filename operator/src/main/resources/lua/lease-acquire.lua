-- Acquire a free lease, or take it over from the holder the caller saw, and raise the term, atomically.
-- KEYS[1] holder record (string, PX expiry)      KEYS[2] term counter (integer, no expiry)
-- ARGV[1] holder the caller expects to replace ('' = take it only if free)
-- ARGV[2] new holder record without its term; '|' .. term is appended
-- ARGV[3] lease ttl in milliseconds
-- ARGV[4] term floor: the counter is raised to at least this first, so terms keep growing
--         after Redis lost its data (the caller passes the highest term it has seen)
-- Returns {1, record, term} when acquired; {0, current record, pttl} when someone else holds it.
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then
  return {0, current, redis.call('PTTL', KEYS[1])}
end
local floor = tonumber(ARGV[4])
local seen = tonumber(redis.call('GET', KEYS[2]) or '0')
if seen < floor then
  redis.call('SET', KEYS[2], floor)
end
local term = redis.call('INCR', KEYS[2])
local record = ARGV[2] .. '|' .. term
redis.call('SET', KEYS[1], record, 'PX', ARGV[3])
return {1, record, term}
