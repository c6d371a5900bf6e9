"""The latency meter (GLI-19): the server's measure of the round trip to each client, which every view
carries.

- ``tcp``: on the gRPC port, the kernel's smoothed round-trip time of the client's TCP connection
  (Linux's ``tcp_info.tcpi_rtt``, read through ``sock_diag``): HTTP/2 pings keep it fresh on a quiet
  connection.  grpc.aio measures the round trip of its own HTTP/2 PING frames but does not expose it.
- ``meter``: the measures one replica holds, and the web port's heartbeat pings, which the client answers
  (``TableService.AnswerHeartbeat``): heartbeat sent to answer received, on this replica's clock.
"""
