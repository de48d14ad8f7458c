-- Fragment, included where a script issues or takes back a fencing number (term or token).
-- A reservation key holds '<ceiling>:<run id>:<replication id>'. Numbers up to the ceiling may be
-- issued: the operator recorded that ceiling durably (in the resource's status, in etcd) before it
-- wrote it here, so after any loss of Redis data the next number can start above it.
-- The reservation counts only on the Redis process that wrote it (run id) and only while that
-- process's data still descends from the data it wrote it into (replication id). A restarted Redis
-- or a promoted replica has another run id; a former master promoted again before it synced from
-- the master that replaced it keeps its run id and its old data, but a promotion always starts a
-- new replication id. Either way the latest increments may be missing, so nothing is issued there
-- until the operator reserves again.
-- Returns the ceiling in force (-1 when none), and this Redis's '<run id>:<replication id>'.
local function reservation(key)
  local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
  -- Redis before 4.0 has no replication id: its run id alone, as before.
  local replid = string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or 'none'
  local here = runid .. ':' .. replid
  local held = redis.call('GET', key)
  if held then
    local ceiling, id = string.match(held, '^(%d+):(%w+:%w+)$')
    if id == here then
      return tonumber(ceiling), here
    end
  end
  return -1, here
end
