"""The Jelly gRPC streaming protocol: the ``RdfStreamService`` broker (:mod:`.server`, on
:mod:`.broker`), its clients (:mod:`.client`) and the ``jelly serve`` / ``publish`` /
``subscribe`` commands (:mod:`.cli`).  Needs ``grpcio`` (``pip install 'jelly[grpc]'``); this
package is the only part of jelly that imports it.  See ``docs/grpc.md``."""
