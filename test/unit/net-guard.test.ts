import test from 'ava';
import { isPrivateAddress } from '../../domain/net-guard';

test('private, loopback, link-local and metadata addresses are recognised', (t) => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    'not-an-ip',
  ]) {
    t.true(isPrivateAddress(ip), ip);
  }
  for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
    t.false(isPrivateAddress(ip), ip);
  }
});
