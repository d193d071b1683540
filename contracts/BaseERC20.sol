// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

/// @title The ERC-20 core of tokenpad's tokens: balances, allowances, supply.
/// @notice Plain ERC-20 (EIP-20), with OpenZeppelin's interfaces and its ERC-6093 errors, so a
/// caller sees what OpenZeppelin's ERC20 would answer: the same functions, events and errors.
/// @dev Ours rather than OpenZeppelin's ERC20 for one reason: `_balances` is visible to the
/// contracts built on it, so a batch from one sender (EIP3009.batchTransfer) reads and writes the
/// sender's balance once for the whole batch instead of once per recipient. No hooks: every
/// balance change goes through `_move` or `_mint` here. Supply only grows by `_mint` (checked),
/// and the sum of all balances always equals `totalSupply()`, so a credit to one account never
/// overflows once the same amount was debited from another: credits are unchecked.
abstract contract BaseERC20 is IERC20, IERC20Metadata, IERC20Errors {
    mapping(address account => uint256) internal _balances;
    mapping(address account => mapping(address spender => uint256)) private _allowances;
    uint256 private _totalSupply;

    function name() public view virtual returns (string memory);

    function symbol() public view virtual returns (string memory);

    function decimals() public view virtual returns (uint8) {
        return 18;
    }

    function totalSupply() public view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) public view returns (uint256) {
        return _balances[account];
    }

    function allowance(address owner, address spender) public view returns (uint256) {
        return _allowances[owner][spender];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// An allowance of type(uint256).max is never spent down (as OpenZeppelin's).
    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value, true);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 current = _allowances[from][msg.sender];
        if (current != type(uint256).max) {
            if (current < value) revert ERC20InsufficientAllowance(msg.sender, current, value);
            unchecked {
                _approve(from, msg.sender, current - value, false);
            }
        }
        _transfer(from, to, value);
        return true;
    }

    /// Moves `value` from `from` to `to`; neither may be the zero address.
    function _transfer(address from, address to, uint256 value) internal {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        _move(from, to, value);
    }

    /// `_transfer` without the zero-address checks, for callers that made them (or cannot pass
    /// a zero `from`: a recovered signer never is).
    function _move(address from, address to, uint256 value) internal {
        uint256 fromBalance = _balances[from];
        if (fromBalance < value) revert ERC20InsufficientBalance(from, fromBalance, value);
        unchecked {
            _balances[from] = fromBalance - value;
            _balances[to] += value; // at most totalSupply: value left another balance
        }
        emit Transfer(from, to, value);
    }

    /// Creates `value` for `to`: the only way supply grows (checked).
    function _mint(address to, uint256 value) internal {
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        _totalSupply += value;
        unchecked {
            _balances[to] += value; // at most totalSupply
        }
        emit Transfer(address(0), to, value);
    }

    function _approve(address owner, address spender, uint256 value, bool emitEvent) private {
        if (owner == address(0)) revert ERC20InvalidApprover(address(0));
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        _allowances[owner][spender] = value;
        if (emitEvent) emit Approval(owner, spender, value);
    }
}
