import test from 'ava';
import fc from 'fast-check';
import { sha256 } from '@noble/hashes/sha2.js';
import { tronAddressFromPrivateKey, tronAddressToHex } from '../../domain/tron/address';
import {
  addressBytes,
  centsToUsdtUnits,
  checkUsdtTransfer,
  decodeRawData,
  decodeTransferCall,
  encodeRawData,
  encodeTransferCall,
  parsePrivateKey,
  rawDataToJson,
  recoverTronSigner,
  signTxid,
  signUsdtTransfer,
  splitUsdtUnits,
  toBroadcastTransaction,
  toHex,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_SMART_CONTRACT_TYPE_URL,
  TronTransactionMismatch,
  txidOf,
  USDT_MAINNET_CONTRACT,
  usdtUnitsToCents,
  type ExpectedUsdtTransfer,
  type TransferMismatchReason,
  type TronRawData,
} from '../../domain/tron/transaction';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
/** A protobuf varint as hex (for hand-made malformed bytes). */
function varint(value: bigint): string {
  const out: number[] = [];
  do {
    out.push(Number(value & 0x7fn) | (value >> 7n > 0n ? 0x80 : 0));
    value >>= 7n;
  } while (value > 0n);
  return Buffer.from(out).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Mainnet vectors (values only). Each is a real USDT transfer on TRON mainnet; anyone can look the
// txid up on an explorer or with /wallet/gettransactionbyid.
//
// A: txid f591b0c6…4729 — TronGrid's /wallet/gettransactionbyid answer for it (raw_data JSON,
//    raw_data_hex, txID and signature), as quoted in a public TRC-20 payment gateway's notes
//    on TronGrid answers ("TRC-20 Payment Gateway API Response Documentation").
// B: txid 9bb2f5e8… in block 83 317 795 — the serialized Transaction (raw_data ‖ signature ‖ ret)
//    quoted in a public java-tron re-implementation's bandwidth test ("tx 9bb2f5e8@83317795 —
//    USDT transfer"); its signature carries v = 28 (0x1c), the other form nodes accept.
// ---------------------------------------------------------------------------------------------
const MAINNET_A = {
  txid: 'f591b0c60730941e5a5fa09ded29993bbaab45ec91bef1a95fb6698876eb4729',
  rawDataHex:
    '0a0239212208412eb04792ea968840888c8a8bfc325aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541c53a7d3488cd47d41e72aeecd311efb4d64afb64121541a614f803b6fd780986a42c78ec9c7f77e6ded13c2244a9059cbb000000000000000000000000cb5f8073cedbb40ee156a6e5dc945c5cac067648000000000000000000000000000000000000000000000000000000000632ea0070adc4868bfc32900180c2d72f',
  signature: '4bd57947ce504df9efb7c39035acd28daf7c3067c019ae0ff7d31db72dfa46fb7322ef28fddbe90115d6030d1995dc573498acf939fb815bb8a43c90285d421201',
  rawData: {
    contract: [
      {
        parameter: {
          value: {
            data: 'a9059cbb000000000000000000000000cb5f8073cedbb40ee156a6e5dc945c5cac067648000000000000000000000000000000000000000000000000000000000632ea00',
            owner_address: '41c53a7d3488cd47d41e72aeecd311efb4d64afb64',
            contract_address: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c',
          },
          type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: '3921',
    ref_block_hash: '412eb04792ea9688',
    expiration: 1751296149000,
    fee_limit: 100000000,
    timestamp: 1751296090669,
  },
};
const MAINNET_B = {
  txidPrefix: '9bb2f5e8',
  rawDataHex:
    '0a02540f220838fa3a5a2874200140e8a3feaae9335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541fe4792ec35f2c300dc3b4722b3b5fcd2d2b0156a121541a614f803b6fd780986a42c78ec9c7f77e6ded13c2244a9059cbb0000000000000000000000003d93998b456c0366ef4f6a4c973d987196c440f700000000000000000000000000000000000000000000000000000000123d308070fdeafaaae933900180a3c347',
  signature: '34515bd7068e7a71d305f2462c366f7b6edec21ba862b587f2a85ed202d414358247da3515a2972bc387fd58a7ae11ab7bd1d832c2c195f797d3edfc887b25b01c',
  owner: '41fe4792ec35f2c300dc3b4722b3b5fcd2d2b0156a',
  recipient: '413d93998b456c0366ef4f6a4c973d987196c440f7',
};

test('mainnet A: txid = sha256(raw_data), every field decodes to the published JSON, the bytes are canonical', (t) => {
  const raw = bytes(MAINNET_A.rawDataHex);
  t.is(txidOf(raw), MAINNET_A.txid);
  const decoded = decodeRawData(raw);
  t.is(toHex(decoded.refBlockBytes), '3921');
  t.is(toHex(decoded.refBlockHash), '412eb04792ea9688');
  t.is(decoded.expiration, 1751296149000n);
  t.is(decoded.timestamp, 1751296090669n);
  t.is(decoded.feeLimit, 100_000_000n);
  t.is(decoded.contractType, TRIGGER_SMART_CONTRACT);
  t.is(decoded.typeUrl, TRIGGER_SMART_CONTRACT_TYPE_URL);
  t.is(toHex(decoded.trigger.contractAddress), tronAddressToHex(USDT_MAINNET_CONTRACT));
  const call = decodeTransferCall(decoded.trigger.data);
  if ('problem' in call) return t.fail(call.detail);
  t.is(tronAddressToHex(call.to), '41cb5f8073cedbb40ee156a6e5dc945c5cac067648');
  t.is(call.units, 0x0632ea00n); // 104 000 000 units = 104.00 USDT
  t.is(usdtUnitsToCents(call.units), 10_400n);
  t.deepEqual(rawDataToJson(decoded), MAINNET_A.rawData);
  t.is(toHex(encodeRawData(decoded)), MAINNET_A.rawDataHex);
});

test('mainnet A: the on-chain signature recovers the owner, and the check accepts the transfer it describes', (t) => {
  const decoded = decodeRawData(bytes(MAINNET_A.rawDataHex));
  const owner = recoverTronSigner(MAINNET_A.txid, MAINNET_A.signature);
  t.is(owner && tronAddressToHex(owner), MAINNET_A.rawData.contract[0]!.parameter.value.owner_address);
  const call = decodeTransferCall(decoded.trigger.data) as { to: string };
  const checked = checkUsdtTransfer(
    MAINNET_A.rawDataHex,
    { owner: owner!, usdtContract: USDT_MAINNET_CONTRACT, to: call.to, amountCents: 10_400n, feeLimit: 100_000_000n, now: 1751296090669 },
    MAINNET_A.txid.toUpperCase(),
  );
  t.is(checked.txid, MAINNET_A.txid);
  t.is(checked.units, 104_000_000n);
});

test('mainnet B: txid prefix as published, signature with v = 28 recovers the owner, recipient and amount decode', (t) => {
  const raw = bytes(MAINNET_B.rawDataHex);
  const txid = txidOf(raw);
  t.true(txid.startsWith(MAINNET_B.txidPrefix));
  const decoded = decodeRawData(raw);
  t.is(toHex(decoded.trigger.ownerAddress), MAINNET_B.owner);
  t.is(tronAddressToHex(recoverTronSigner(txid, MAINNET_B.signature)!), MAINNET_B.owner);
  const call = decodeTransferCall(decoded.trigger.data) as { to: string; units: bigint };
  t.is(tronAddressToHex(call.to), MAINNET_B.recipient);
  t.is(call.units, 306_000_000n);
  t.is(decoded.feeLimit, 150_000_000n);
  t.is(toHex(encodeRawData(decoded)), MAINNET_B.rawDataHex);
});

// Trust Wallet wallet-core, tests/chains/Tron/SignerTests.cpp (SignTransferAsset, SignTransfer,
// SignTransferTrc20Contract, SignFreezeBalanceV2 — the last "successfully broadcasted"): key, txid
// and the exact 65-byte signature. Both sides use RFC 6979, so the bytes must match exactly.
const SIGNATURE_VECTORS: { key: string; address: string; txid: string; signature: string }[] = [
  {
    key: '2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54',
    address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
    txid: '546a3d07164c624809cf4e564a083a7a7974bb3c4eff6bb3e278b0ca21083fcb',
    signature: '77f5eabde31e739d34a66914540f1756981dc7d782c9656f5e14e53b59a15371603a183aa12124adeee7991bf55acc8e488a6ca04fb393b1a8ac16610eeafdfc00',
  },
  {
    key: '2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54',
    address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
    txid: 'dc6f6d9325ee44ab3c00528472be16e1572ab076aa161ccd12515029869d0451',
    signature: 'ede769f6df28aefe6a846be169958c155e23e7e5c9621d2e8dce1719b4d952b63e8a8bf9f00e41204ac1bf69b1a663dacdf764367e48e4a5afcd6b055a747fb200',
  },
  {
    key: '2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54',
    address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
    txid: '0d644290e3cf554f6219c7747f5287589b6e7e30e1b02793b48ba362da6a5058',
    signature: 'bec790877b3a008640781e3948b070740b1f6023c29ecb3f7b5835433c13fc5835e5cad3bd44360ff2ddad5ed7dc9d7dee6878f90e86a40355b7697f5954b88c01',
  },
  {
    key: '75065f100e38d3f3b4c5c4235834ba8216de62272a4f03532c44b31a5734360a',
    address: 'TWWb9EjUWai17YEVB7FR8hreupYJKG9sMR',
    txid: '3a46321487ce1fd115da38b3431006ea529f65ef2507f19233f5a23c05abd01d',
    signature: 'd4b539a389f6721b4e9d0eb9f39b62a539069060e1af2a118f06b81737ad9cdb49d5b4fda85f10603012f8de3996da2a1234c21d74ac6ea5e60217d3c10b630900',
  },
];

test('published signature vectors: the same 65 bytes r ‖ s ‖ v, and they recover the key’s address', (t) => {
  for (const v of SIGNATURE_VECTORS) {
    const key = parsePrivateKey(v.key);
    t.is(signTxid(v.txid, key), v.signature);
    t.is(tronAddressFromPrivateKey(key), v.address);
    t.is(recoverTronSigner(v.txid, v.signature), v.address);
    // The 27/28 form of v is the same signature.
    const legacy = v.signature.slice(0, 128) + (Number.parseInt(v.signature.slice(128), 16) + 27).toString(16);
    t.is(recoverTronSigner(v.txid, legacy), v.address);
  }
});

test('a signature over another txid, a flipped bit or a bad v does not recover the signer', (t) => {
  const v = SIGNATURE_VECTORS[0]!;
  t.not(recoverTronSigner(SIGNATURE_VECTORS[1]!.txid, v.signature), v.address);
  const flipped = (Number.parseInt(v.signature[10]!, 16) ^ 1).toString(16);
  t.not(recoverTronSigner(v.txid, v.signature.slice(0, 10) + flipped + v.signature.slice(11)), v.address);
  t.is(recoverTronSigner(v.txid, `${v.signature.slice(0, 128)}05`), undefined);
  t.is(recoverTronSigner(v.txid, 'zz'), undefined);
  t.throws(() => parsePrivateKey('00'.repeat(32)), { instanceOf: RangeError });
  t.throws(() => parsePrivateKey('ff'.repeat(32)), { instanceOf: RangeError });
});

test('units: 1 cent = 10^4 on-chain units, exact both ways or refused', (t) => {
  t.is(centsToUsdtUnits(1n), 10_000n);
  t.is(centsToUsdtUnits(150_050n), 1_500_500_000n); // 1 500.50 USDT
  t.is(usdtUnitsToCents(1_500_500_000n), 150_050n);
  t.is(usdtUnitsToCents(1_234_567n), undefined); // 1.234567 USDT is not a whole number of cents
  t.is(usdtUnitsToCents(-10_000n), undefined);
  t.deepEqual(splitUsdtUnits(1_234_567n), { cents: 123n, remainderUnits: 4_567n });
  t.throws(() => centsToUsdtUnits(-1n));
});

// ---------------------------------------------------------------------------------------------
// The check before signing
// ---------------------------------------------------------------------------------------------
const HOT_KEY = parsePrivateKey(SIGNATURE_VECTORS[0]!.key);
const HOT = tronAddressFromPrivateKey(HOT_KEY);
const TO = 'TGgd7pXdZALo9GyT4pmF2tT6JRf7ETWVcL';
const OTHER = 'TCNtTa1rveKkovHR2ebABu4K66U6ocUCZX';
const NOW = 1_760_000_000_000;
const expected: ExpectedUsdtTransfer = { owner: HOT, usdtContract: USDT_MAINNET_CONTRACT, to: TO, amountCents: 12_345n, feeLimit: 30_000_000n, now: NOW };

function honest(over: Partial<TronRawData> = {}, trigger: Partial<TronRawData['trigger']> = {}): TronRawData {
  return {
    refBlockBytes: bytes('4f15'),
    refBlockHash: bytes('d5efcd3acb235c24'),
    expiration: BigInt(NOW + 60_000),
    timestamp: BigInt(NOW),
    feeLimit: 30_000_000n,
    contractType: TRIGGER_SMART_CONTRACT,
    typeUrl: TRIGGER_SMART_CONTRACT_TYPE_URL,
    ...over,
    trigger: {
      ownerAddress: addressBytes(HOT),
      contractAddress: addressBytes(USDT_MAINNET_CONTRACT),
      data: encodeTransferCall(TO, 123_450_000n),
      callValue: 0n,
      callTokenValue: 0n,
      tokenId: 0n,
      ...trigger,
    },
  };
}

const refusal = (t: import('ava').ExecutionContext, hex: string, reason: TransferMismatchReason, exp: ExpectedUsdtTransfer = expected) => {
  const error = t.throws(() => checkUsdtTransfer(hex, exp), { instanceOf: TronTransactionMismatch });
  t.is(error?.reason, reason, error?.message);
};
const hexOf = (raw: TronRawData) => toHex(encodeRawData(raw));

test('the honest build passes, is signed by the hot wallet and broadcasts as the same bytes', (t) => {
  const hex = hexOf(honest());
  const checked = checkUsdtTransfer(hex, expected);
  t.is(checked.txid, toHex(sha256(bytes(hex))));
  t.is(checked.units, 123_450_000n);
  const signature = signUsdtTransfer(checked, HOT_KEY);
  t.is(recoverTronSigner(checked.txid, signature), HOT);
  t.is(signUsdtTransfer(checked, HOT_KEY), signature, 'deterministic: a rebroadcast is byte for byte the first');
  const body = toBroadcastTransaction(checked, signature);
  t.is(body.txID, checked.txid);
  t.is(body.raw_data_hex, hex);
  t.deepEqual(body.signature, [signature]);
  t.false(JSON.stringify(body).includes('call_value'));
  t.throws(() => signUsdtTransfer(checked, parsePrivateKey(SIGNATURE_VECTORS[3]!.key)), { instanceOf: TronTransactionMismatch });
});

test('tampered builds are refused, each for its own reason', (t) => {
  const approve = bytes('095ea7b3');
  const data = encodeTransferCall(TO, 123_450_000n);
  refusal(t, hexOf(honest({}, { contractAddress: addressBytes(OTHER) })), 'contract');
  refusal(t, hexOf(honest({}, { data: encodeTransferCall(OTHER, 123_450_000n) })), 'recipient');
  refusal(t, hexOf(honest({}, { data: encodeTransferCall(TO, 123_450_001n) })), 'amount');
  refusal(t, hexOf(honest({}, { data: Uint8Array.from([...approve, ...data.subarray(4)]) })), 'selector');
  refusal(t, hexOf(honest({}, { ownerAddress: addressBytes(OTHER) })), 'owner');
  refusal(t, hexOf(honest({ feeLimit: 30_000_001n })), 'fee_limit');
  refusal(t, hexOf(honest({}, { callValue: 1n })), 'call_value');
  refusal(t, hexOf(honest({}, { callTokenValue: 5n, tokenId: 1_000_001n })), 'call_value');
  refusal(t, hexOf(honest({ expiration: BigInt(NOW - 1) })), 'expired');
  refusal(t, hexOf(honest({ expiration: BigInt(NOW + 10_000) })), 'expired'); // less than the 30 s asked for
  refusal(t, hexOf(honest({ expiration: BigInt(NOW + 25 * 3600_000) })), 'expiration');
  refusal(t, hexOf(honest({ contractType: 1 })), 'type');
  refusal(t, hexOf(honest({ typeUrl: 'type.googleapis.com/protocol.TransferContract' })), 'type');
  // The recipient word must be a left-padded account id (the TVM would ignore high bytes; we do not).
  const padded = Uint8Array.from(data);
  padded[4 + 11] = 0x41;
  refusal(t, hexOf(honest({}, { data: padded })), 'recipient');
  refusal(t, hexOf(honest({}, { data: data.subarray(0, 36) })), 'amount');
  const error = t.throws(() => checkUsdtTransfer(hexOf(honest()), expected, '00'.repeat(32)), { instanceOf: TronTransactionMismatch });
  t.is(error?.reason, 'txid');
});

test('bytes a lenient parser could read differently are refused', (t) => {
  const hex = hexOf(honest());
  refusal(t, `${hex}5202${toHex(new TextEncoder().encode('hi'))}`, 'encoding'); // raw.data (memo), field 10
  refusal(t, `${hex}9001${'01'}`, 'encoding'); // fee_limit a second time (last-wins parsers would read 1)
  refusal(t, `${hex}1801`, 'encoding'); // ref_block_num, field 3
  refusal(t, hex.slice(0, -2), 'encoding'); // truncated
  refusal(t, `${hex}0`, 'encoding'); // odd hex
  // A non-minimal varint: fee_limit (the last field) with a redundant zero continuation byte.
  const fee = varint(30_000_000n);
  t.true(hex.endsWith(`9001${fee}`));
  const lastByte = Number.parseInt(fee.slice(-2), 16);
  refusal(t, `${hex.slice(0, -2)}${(lastByte | 0x80).toString(16)}00`, 'encoding');
  // Timestamp 0 written explicitly (canonical protobuf omits defaults).
  const withoutTimestamp = hexOf(honest({ timestamp: 0n }));
  t.notThrows(() => checkUsdtTransfer(withoutTimestamp, expected));
  refusal(t, `${withoutTimestamp.slice(0, -(4 + fee.length))}7000${withoutTimestamp.slice(-(4 + fee.length))}`, 'encoding');
  // Two contracts (only one is allowed; a node reads both).
  const header = 8 + 20 + 2 + varint(BigInt(NOW + 60_000)).length;
  const contractField = hex.slice(header, header + 6 + 0xae * 2);
  t.true(contractField.startsWith('5aae01'));
  refusal(t, hex.slice(0, header) + contractField + hex.slice(header), 'encoding');
});

test('property: whatever bytes a node returns, an accepted transaction pays exactly the asked recipient and amount', (t) => {
  const base = bytes(hexOf(honest()));
  fc.assert(
    fc.property(fc.nat(base.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
      const mutated = Uint8Array.from(base);
      mutated[at]! ^= xor;
      let checked: ReturnType<typeof checkUsdtTransfer>;
      try {
        checked = checkUsdtTransfer(toHex(mutated), expected);
      } catch (error) {
        return error instanceof TronTransactionMismatch;
      }
      const call = decodeTransferCall(checked.raw.trigger.data) as { to: string; units: bigint };
      return (
        call.to === TO &&
        call.units === 123_450_000n &&
        toHex(checked.raw.trigger.ownerAddress) === toHex(addressBytes(HOT)) &&
        toHex(checked.raw.trigger.contractAddress) === toHex(addressBytes(USDT_MAINNET_CONTRACT)) &&
        checked.raw.feeLimit === 30_000_000n
      );
    }),
    { numRuns: 2000 },
  );
  t.pass();
});

test('property: any recipient and amount round-trips through the encoding and passes the check', (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.bigInt({ min: 1n, max: 10n ** 14n }), (seed, cents) => {
      let to: string;
      try {
        to = tronAddressFromPrivateKey(parsePrivateKey(toHex(seed)));
      } catch {
        return true;
      }
      const raw = honest({}, { data: encodeTransferCall(to, centsToUsdtUnits(cents)) });
      const checked = checkUsdtTransfer(hexOf(raw), { ...expected, to, amountCents: cents });
      return checked.to === to && checked.units === cents * 10_000n;
    }),
    { numRuns: 300 },
  );
  t.pass();
});
