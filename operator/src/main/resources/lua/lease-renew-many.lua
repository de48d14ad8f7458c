-- Extend many leases in one call, each only if the caller still holds it (renewals of many groups
-- batched into one round trip). Keys from several hash slots are only allowed on a single Redis or a
-- Sentinel-managed master; the caller groups keys per connection.
-- KEYS[i] holder record of lease i
-- ARGV[i] the caller's record of lease i      ARGV[#KEYS + i] ttl of lease i in milliseconds
-- Returns, for each lease, 1 when renewed or the current record ('' when free) when not.
local n = #KEYS
local out = {}
for i = 1, n do
  local current = redis.call('GET', KEYS[i])
  if current == ARGV[i] then
    redis.call('PEXPIRE', KEYS[i], ARGV[n + i])
    out[i] = 1
  else
    out[i] = current or ''
  end
end
return out
