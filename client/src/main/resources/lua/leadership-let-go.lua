-- A former leader no longer believes it leads: its successor may be told it leads now.
-- KEYS[1] handover      KEYS[2] holder record (its key names the election on baton:leases)
-- ARGV[1] the former leader's record
-- Returns 1 when the handover was its own and is gone, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', 'baton:leases', KEYS[2])
  return 1
end
return 0
