// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TokenpadFactory} from "../TokenpadFactory.sol";
import {TokenpadToken} from "../TokenpadToken.sol";
import {TestUSDC} from "../TestUSDC.sol";

/// The few forge cheatcodes these tests use, declared by hand (forge answers calls to this
/// address). forge-std, the usual declaration of all of them, is on npm only as an old unofficial
/// copy (1.1.2), and the tests need eight cheatcodes: a hand-written interface keeps the suite
/// free of a stale vendored library. Signatures as in foundry's cheatcode specification.
interface Vm {
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function prank(address msgSender) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function warp(uint256 newTimestamp) external;
    function getCode(string calldata artifactPath) external view returns (bytes memory creationBytecode);
    function label(address account, string calldata newLabel) external;
}

/// What every test contract here shares: the cheatcodes, assertions that revert (a reverting
/// test fails in forge), bounded fuzz inputs, deployments of the committed artifacts in
/// contracts/build (the bytes tokenpad ships, not a fresh compile of the sources), and EIP-3009
/// signatures.
abstract contract TestBase {
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    /// Shown by `forge test -vv` (forge decodes this ds-test event): figures such as gas.
    event log_named_uint(string key, uint256 val);

    bytes32 internal constant RECEIVE_TYPEHASH =
        keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)");
    bytes32 internal constant TRANSFER_TYPEHASH =
        keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)");

    // ------------------------------------------------------------ assertions

    function assertTrue(bool ok, string memory what) internal pure {
        if (!ok) revert(string.concat("assertion failed: ", what));
    }

    function assertEq(uint256 a, uint256 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", _str(a), " != ", _str(b)));
    }

    function assertEq(int256 a, int256 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", _sstr(a), " != ", _sstr(b)));
    }

    function assertEq(address a, address b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", _str(uint160(a)), " != ", _str(uint160(b))));
    }

    function assertEq(bytes32 a, bytes32 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", _str(uint256(a)), " != ", _str(uint256(b))));
    }

    /// `x` mapped into [lo, hi] (for fuzz inputs), spread evenly for any x.
    function bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        require(lo <= hi, "bound: lo > hi");
        if (lo == 0 && hi == type(uint256).max) return x;
        return lo + x % (hi - lo + 1);
    }

    function _sstr(int256 x) private pure returns (string memory) {
        return x < 0 ? string.concat("-", _str(uint256(-x))) : _str(uint256(x));
    }

    function _str(uint256 x) private pure returns (string memory s) {
        if (x == 0) return "0";
        uint256 n;
        for (uint256 y = x; y != 0; y /= 10) ++n;
        bytes memory b = new bytes(n);
        for (; x != 0; x /= 10) b[--n] = bytes1(uint8(48 + x % 10));
        s = string(b);
    }

    // ------------------------------------------------------------ deployments

    /// Deploys `artifact`'s creation code (a JSON file with a `bytecode` field, read through the
    /// getCode cheatcode) with `args` (ABI-encoded constructor arguments) appended.
    function deployArtifact(string memory artifact, bytes memory args) internal returns (address a) {
        bytes memory code = bytes.concat(vm.getCode(artifact), args);
        assembly ("memory-safe") {
            a := create(0, add(code, 0x20), mload(code))
        }
        require(a != address(0), string.concat("deploying ", artifact, " failed"));
    }

    function deployUsdc() internal returns (TestUSDC) {
        return TestUSDC(deployArtifact("contracts/build/TestUSDC.json", ""));
    }

    function deployFactory() internal returns (TokenpadFactory) {
        return TokenpadFactory(deployArtifact("contracts/build/TokenpadFactory.json", ""));
    }

    /// A tokenpad token of `supply` minted to `treasury`, deployed through `factory` by this test.
    function deployToken(TokenpadFactory factory, bytes32 salt, uint256 supply, address treasury)
        internal
        returns (TokenpadToken)
    {
        return TokenpadToken(factory.deploy(salt, "Test", "TST", supply, treasury));
    }

    // ------------------------------------------------------------ EIP-3009

    struct Sig {
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// `key`'s EIP-712 signature of an EIP-3009 authorization (`typehash`: receive or transfer)
    /// under `token`'s domain.
    function signAuth(
        uint256 key,
        address token,
        bytes32 typehash,
        address to,
        uint256 value,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (Sig memory sig) {
        bytes32 structHash = keccak256(abi.encode(typehash, vm.addr(key), to, value, uint256(0), validBefore, nonce));
        bytes32 digest = keccak256(abi.encodePacked(hex"1901", IDomain(token).DOMAIN_SEPARATOR(), structHash));
        (sig.v, sig.r, sig.s) = vm.sign(key, digest);
    }
}

interface IDomain {
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
