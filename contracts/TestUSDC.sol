// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title TEST TOKEN, NOT USDC. For local nodes (anvil) and test chains only.
/// @notice !!! ANYONE CAN MINT ANY AMOUNT (see mint). It has no value. Never deploy it to a
/// production chain and never configure it as CHAIN_USDC there: on Base and Base Sepolia use
/// Circle's USDC (contracts/README.md lists the addresses). !!!
/// @dev Mirrors what tokenpad uses of Circle's USDC: name "USD Coin", symbol "USDC", 6 decimals,
/// EIP-3009 with EIP-712 domain version "2" (real USDC on Base mainnet signs under
/// name "USD Coin", version "2"; on Base Sepolia under name "USDC", version "2").
contract TestUSDC is EIP3009 {
    constructor() ERC20("USD Coin", "USDC") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function version() public pure override returns (string memory) {
        return "2";
    }

    /// TEST ONLY: mints `amount` (6-decimal base units) to `to`, for anyone who asks.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
