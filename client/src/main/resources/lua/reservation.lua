-- Fragment, included where a script issues or takes back a fencing number (term or token).
-- A reservation key holds '<ceiling>:<run id>'. Numbers up to the ceiling may be issued: the operator
-- recorded that ceiling durably (in the resource's status, in etcd) before it wrote it here, so after
-- any loss of Redis data the next number can start above it. The reservation counts only on the
-- Redis process that wrote it: a restarted Redis or a promoted replica has another run id and may
-- have lost the latest increments, so nothing is issued there until the operator reserves again.
-- Returns the ceiling in force (-1 when none), and this Redis's run id.
local function reservation(key)
  local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
  local held = redis.call('GET', key)
  if held then
    local ceiling, id = string.match(held, '^(%d+):(%w+)$')
    if id == runid then
      return tonumber(ceiling), runid
    end
  end
  return -1, runid
end
