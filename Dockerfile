# Folio: one image for both roles. The compose file picks the role with `command`:
#   coordinator  node coordinator/main.ts   (port 9200, the public ES-compatible API)
#   shard node   node shard-node/main.ts    (port 9300, internal /_internal/v1 API)
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build step.
FROM node:24-slim

ENV NODE_ENV=production
# glibc's malloc raises its mmap threshold each time a large block is freed, so after the first
# bulk bodies, blocks of up to 32 MiB come from the heap and stay resident once freed: a shard
# node's RSS grew 2-3 times as fast as its heap and buffers. A fixed threshold keeps blocks of
# 128 KiB and more mmapped, returned on free (docs/performance.md, "Resident memory").
# https://man7.org/linux/man-pages/man3/mallopt.3.html
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
# Even so, glibc keeps the small blocks freed while a shard node indexes resident (it returns only
# the top of its heap): 110 B per document copy outside V8's heap and buffers after a load, 48% of
# the node's RSS. jemalloc returns freed pages in the background: 15-27 B (docs/performance.md,
# "Resident memory per copy"). The fixed path is what local runs resolve (scripts/local-preload.ts).
# https://jemalloc.net/jemalloc.3.html#tuning
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/* \
  && ln -s "$(find /usr/lib -name libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0
# V8's compiled code of every module, kept between starts (relative to the working directory: /app
# here, the repository for `npm start`'s processes): a restarted shard node loads its modules in a
# third of the time, the largest fixed part of a restart to green (docs/performance.md, "Restarts").
# https://nodejs.org/api/module.html#module-compile-cache
ENV NODE_COMPILE_CACHE=.folio/compile-cache
WORKDIR /app

# Dependencies first, so that source edits reuse this layer. Dev dependencies (TypeScript,
# vitest, sample data sets, the pinned `node` package) stay out of the image.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY protocol ./protocol
COPY shared ./shared
COPY shard-node ./shard-node
COPY coordinator ./coordinator
COPY state-store ./state-store

# Shard nodes keep their data under /data (a named volume per shard in docker-compose.yml).
# A new named volume takes the ownership of this directory, so the non-root user can write it.
RUN mkdir -p /data && chown node:node /data
# Fill the compile cache at build time, so that a container's first start is fast too, and let the
# non-root user add to it.
RUN node --input-type=module -e "await import('./shard-node/app.ts'); await import('./coordinator/app.ts')" \
  && chown -R node:node .folio
USER node

EXPOSE 9200 9300
CMD ["node", "coordinator/main.ts"]
