-- wrk script for `make bench`: POSTs distinct signed notifications (one JSON body a line in
-- the file named by WRK_BODIES) to the webhook, cycling through them; WRK_PATH names another
-- route (retention-message's realtime requests).
local bodies = {}
for line in io.lines(os.getenv("WRK_BODIES")) do
  bodies[#bodies + 1] = line
end
local path = os.getenv("WRK_PATH") or "/appstore/notifications"
local index = 0
request = function()
  index = index % #bodies + 1
  return wrk.format("POST", path, { ["Content-Type"] = "application/json" }, bodies[index])
end
