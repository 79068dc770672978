// OrderTrackServer
