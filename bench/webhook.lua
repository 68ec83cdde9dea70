-- wrk script for `make bench`: POSTs distinct signed notifications (one JSON body a line in
-- the file named by WRK_BODIES) to the webhook, cycling through them; WRK_PATH names another
-- route (retention-message's realtime requests). Each request is formatted once, in init
-- (where wrk knows the host): formatting a 15 KB request at every send cost wrk about as much
-- CPU as the function answering it, on the same two cores.
local path = os.getenv("WRK_PATH") or "/appstore/notifications"
local requests = {}
local index = 0
function init(args)
  for line in io.lines(os.getenv("WRK_BODIES")) do
    requests[#requests + 1] = wrk.format("POST", path, { ["Content-Type"] = "application/json" }, line)
  end
end
function request()
  index = index % #requests + 1
  return requests[index]
end
