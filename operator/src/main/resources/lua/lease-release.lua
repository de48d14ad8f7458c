-- Delete a lease, only if the caller holds it (compare-and-delete).
-- KEYS[1] holder record      ARGV[1] the caller's holder record
-- Returns {1} when deleted, {0} when the lease was free or held by someone else.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return {redis.call('DEL', KEYS[1])}
end
return {0}
