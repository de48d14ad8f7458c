-- Read a lease without changing it.
-- KEYS[1] holder record      KEYS[2] term counter
-- Returns {current record or '', pttl, term counter or 0}.
local current = redis.call('GET', KEYS[1])
return {current or '', redis.call('PTTL', KEYS[1]), tonumber(redis.call('GET', KEYS[2]) or '0')}
