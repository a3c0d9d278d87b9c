"""The kubectl boundary: the only place that runs a process.

A call goes down once, as ``subprocess.run`` does (decide, run, check): ``commands`` gives a
step's kubectl arguments (the run and ``--dry-run`` share them); ``runner`` adds the node's
flags (``config``) and decides the whole call before its process starts (``call.Call``: a
read, a write or a wait, its bound within ``--deadline`` (``bounds``), whether its ``-v``
log paces it: ``call.decide`` is the one place time limits are decided), logs it as bash to
paste (``transcript``), and hands it to the one seam to kubectl (``seam.Kubectl``; in
production ``process``), which spawns it in its own group, reads
its pipes until it exits and feeds its stderr to ``pace`` (the one question the reader asks:
may it be stopped now?); a wait's watches run at once in ``watches``. ``requests_log`` is the
one reader of kubectl's ``-v`` log, and ``classify.classify`` the one function that turns
the call, how it ended and that record into the result or the final typed error
(``kubectl_errors``' table); ``outcome`` reads a JSON answer, its shape checked (``shapes``,
``workload_fields``). Signals landing while a process starts are held by ``interrupts``.
It may import the contract (error types, names, redaction); never the rules or the
operations: it knows how to talk to kubectl, not what the answers mean.
"""
