-- Extend a lease, only if the caller still holds it.
-- KEYS[1] holder record
-- ARGV[1] the caller's holder record      ARGV[2] lease ttl in milliseconds
-- Returns {1, record, ttl} when renewed; {0, current record or '', pttl} otherwise (pttl -2: free).
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, current, tonumber(ARGV[2])}
end
if not current then
  return {0, '', -2}
end
return {0, current, redis.call('PTTL', KEYS[1])}
