// The loopback TCP proxy lives with the cluster's scripts (the chaos run cuts the cluster's database
// through it); the tests import it from here as before.
export { TcpProxy } from '../../scripts/cluster/tcp-proxy.ts'
