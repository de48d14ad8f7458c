-- Delete a lock only if it holds exactly the caller's value (compare-and-delete). Used by holders,
-- and by the operator to reap or force-release, always with the exact value it read.
-- KEYS[1] lock      KEYS[2] token counter      ARGV[1] the value to delete
-- A release raises the counter by one, so a late renew of the released value cannot take the lock
-- back (see lock-renew.lua); tokens stay strictly increasing, with a gap.
-- Returns {1, '', -2, counter} when deleted; else {0, current value or '', pttl, counter}.
-- A deletion publishes 'released <KEYS[1]>' on baton:locks, for the operator that watches the lock.
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', 'baton:locks', 'released ' .. KEYS[1])
  return {1, '', -2, redis.call('INCR', KEYS[2])}
end
return {0, current or '', redis.call('PTTL', KEYS[1]),
  tonumber(redis.call('GET', KEYS[2]) or '0')}
