// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MarketBase, IPositions} from "./MarketBase.sol";
import {TokenpadMarket} from "../TokenpadMarket.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// Random holders' trades on a launched pool (both directions, exact in and out, bounds around
/// and beyond what the pool gives), tokens sent to the market by mistake, and time passing. The
/// handler checks each trade against its signed bound and counts violations.
contract MarketHandler is MarketBase {
    uint256 internal constant HOLDERS = 3; // keys 0xB01..0xB03
    Launch internal launch;
    uint256 public positionId;
    uint128 public liquidity;
    uint256 public donatedUsdc;
    uint256 public donatedTokens;
    uint256 public trades;
    uint256 public boundBroken; // a trade that went through past its signed bound, or paid wrong
    uint256 internal nonce;

    constructor() {
        deployMarket();
        launch = newLaunch(true);
        (, positionId, liquidity) = openAndCheck(launch);
        for (uint256 h; h < HOLDERS; ++h) {
            address a = vm.addr(0xB01 + h);
            usdc.mint(a, 10_000_000e6);
            vm.prank(treasury);
            launch.token.transfer(a, 10_000_000e18);
        }
    }

    function marketAddress() external view returns (address) {
        return address(market);
    }

    function tokenAddresses() external view returns (address, address) {
        return (address(usdc), address(launch.token));
    }

    function positionsAddress() external view returns (address) {
        return positions;
    }

    function owner() external view returns (address) {
        return treasury;
    }

    /// A holder signs a trade with `limit` as its bound; the relayer sends it.
    function trade(uint256 holderSeed, bool buy, bool exactIn, uint256 amount, uint256 limit) external {
        uint256 key = 0xB01 + holderSeed % HOLDERS;
        address holder = vm.addr(key);
        (IERC20 tokenIn, IERC20 tokenOut) =
            buy ? (IERC20(address(usdc)), IERC20(address(launch.token))) : (IERC20(address(launch.token)), IERC20(address(usdc)));
        amount = exactIn
            ? bound(amount, 1, tokenIn.balanceOf(holder) / 4 + 1)
            : bound(amount, 1, buy ? 20_000_000e18 : 200_000e6);
        // exact in: no bound half the time, else any minAmountOut; exact out: any maxAmountIn the holder can pull
        limit = exactIn ? (limit % 2 == 0 ? 0 : limit >> 128) : bound(limit, 1, tokenIn.balanceOf(holder));
        bytes32 salt = bytes32(++nonce);
        TokenpadMarket.Pull memory p = tradePull(key, address(tokenIn), address(tokenOut), exactIn, amount, limit, salt);
        uint256 in0 = tokenIn.balanceOf(holder);
        uint256 out0 = tokenOut.balanceOf(holder);
        vm.prank(relayer);
        (bool ok,) = address(market).call(
            exactIn
                ? abi.encodeCall(TokenpadMarket.swapExactIn, (address(tokenIn), address(tokenOut), amount, limit, salt, p))
                : abi.encodeCall(TokenpadMarket.swapExactOut, (address(tokenIn), address(tokenOut), amount, limit, salt, p))
        );
        uint256 paid = in0 - tokenIn.balanceOf(holder);
        uint256 got = tokenOut.balanceOf(holder) - out0;
        if (!ok) {
            if (paid != 0 || got != 0) ++boundBroken;
            return;
        }
        ++trades;
        if (exactIn && (paid != amount || got < limit)) ++boundBroken;
        if (!exactIn && (got != amount || paid > limit)) ++boundBroken;
    }

    /// Someone sends tokens to the market by mistake.
    function donate(bool tokens, uint256 amount) external {
        if (tokens) {
            amount = bound(amount, 1, 1_000_000e18);
            vm.prank(treasury);
            launch.token.transfer(address(market), amount);
            donatedTokens += amount;
        } else {
            amount = bound(amount, 1, 1_000_000e6);
            usdc.mint(address(market), amount);
            donatedUsdc += amount;
        }
    }

    function warp(uint32 seconds_) external {
        vm.warp(block.timestamp + seconds_ % 1 days);
    }
}

contract MarketInvariantTest is MarketBase {
    MarketHandler internal handler;

    function setUp() public {
        handler = new MarketHandler();
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// The market never pays out of its own balance: it holds exactly what was sent to it by
    /// mistake, whatever trades ran.
    function invariant_theMarketHoldsOnlyWhatWasSentToIt() public view {
        (address usdc_, address token_) = handler.tokenAddresses();
        assertEq(IERC20(usdc_).balanceOf(handler.marketAddress()), handler.donatedUsdc(), "the market's USDC");
        assertEq(IERC20(token_).balanceOf(handler.marketAddress()), handler.donatedTokens(), "the market's tokens");
    }

    /// Every trade that went through honoured its signed bound; a refused one moved nothing.
    function invariant_tradesHonourTheirSignedBounds() public view {
        assertEq(handler.boundBroken(), 0, "a trade past its bound");
    }

    /// The launch's position stays where openPool put it: the market's NFT, all its liquidity,
    /// the treasury's fees.
    function invariant_theLaunchPositionIsLockedForGood() public view {
        IPositions p = IPositions(handler.positionsAddress());
        uint256 id = handler.positionId();
        assertEq(p.ownerOf(id), handler.marketAddress(), "the NFT's owner");
        (,,,,,,, uint128 l,,,,) = p.positions(id);
        assertEq(l, handler.liquidity(), "its liquidity");
        assertEq(TokenpadMarket(handler.marketAddress()).positionOwner(id), handler.owner(), "its fees' owner");
    }

    function afterInvariant() public view {
        assertTrue(handler.trades() > 0, "trades went through");
    }
}
