-- Delete a lease, only if the caller holds it (compare-and-delete).
-- KEYS[1] holder record      KEYS[2] handover (see lease-acquire.lua)
-- ARGV[1] the caller's holder record
-- The released record stays as the handover for the rest of its lease, so a later leader waits for
-- its pod to let go. A release publishes KEYS[1] on baton:leases.
-- Returns {1} when deleted, {0} when the lease was free or held by someone else.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then
    redis.call('SET', KEYS[2], ARGV[1], 'PX', left)
  end
  redis.call('DEL', KEYS[1])
  redis.pcall('PUBLISH', 'baton:leases', KEYS[1])
  return {1}
end
return {0}
