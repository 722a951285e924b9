changed on a worker
changed on a worker
changed on a worker
changed on a worker
changed on a worker
changed on a worker
changed on a worker
changed on a worker
