package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import fastwindow.model.{FallbackReason, FrameShape}

/**
 * The input types a family's functions may have and how its reasons word one they refuse,
 * declared once per family as spark-rapids declares each expression's type signature, so that
 * the checks every family makes, and their reasons, are written once: [[of]] starts the checks
 * of one function ([[Signature.Checks]]), to which the family adds only its own.
 *
 * @param types   the types each checked input may have, described as reasons list them
 * @param wording how reasons word a type it refuses
 */
final case class Signature(types: TypeSet, wording: Signature.Wording = Signature.SupportedYet) {

  /** The checks of function `name` (as reasons name it), whose `inputs` must be of [[types]]. */
  def of(name: String, inputs: Expression*): Signature.Checks =
    new Signature.Checks(this, name, inputs)

  /** Why function `name` is refused, if the type of one of its `inputs` is not of [[types]]. */
  def typeReason(name: String, inputs: Seq[Expression]): Option[FallbackReason] =
    inputs.find(c => !types.contains(c.dataType)).map { c =>
      FallbackReason(FallbackReason.UnsupportedType, wording.reason(name, c.dataType, types))
    }
}

object Signature {

  /**
   * How a reason words a type that function `name` does not take: "not supported yet" or "not
   * supported", then the supported types introduced by `listed`, or not listed.
   */
  sealed abstract class Wording(yet: Boolean, listed: Option[String]) {
    def reason(name: String, t: DataType, types: TypeSet): String =
      s"$name of type ${t.sql} is not supported${if (yet) " yet" else ""}" +
        listed.fold("")(l => s" ($l: ${types.description})")
  }

  /** "... is not supported yet (supported: ...)" */
  case object SupportedYet extends Wording(yet = true, Some("supported"))

  /** "... is not supported yet (supported input types: ...)" */
  case object InputTypesYet extends Wording(yet = true, Some("supported input types"))

  /** "... is not supported (supported input types: ...)" */
  case object InputTypes extends Wording(yet = false, Some("supported input types"))

  /** "... is not supported" */
  case object Unlisted extends Wording(yet = false, None)

  /**
   * Why a FILTER (WHERE `filter`) clause is refused, if it is: when it is not deterministic, or
   * always when `refused`. Reasons show the function as `shownAs`.
   */
  def filterReason(
      shownAs: String,
      filter: Option[Expression],
      refused: Boolean = false): Option[FallbackReason] =
    filter.filter(f => refused || !f.deterministic).map { f =>
      FallbackReason(FallbackReason.UnsupportedFunction,
        s"$shownAs FILTER (WHERE ${f.sql}) is not supported")
    }

  /**
   * The checks of one function, made in this order, the first that refuses it giving the
   * reason: the family's checks that come first ([[checkFirst]]), the types of its inputs, the
   * family's other checks ([[check]]) and its FILTER clause ([[filtered]]); then its frame
   * ([[framed]]) and its spec. A family's own checks of one step are made in the order it adds
   * them.
   */
  final class Checks private[Signature] (
      signature: Signature,
      name: String,
      inputs: Seq[Expression],
      first: Seq[() => Option[FallbackReason]] = Nil,
      own: Seq[() => Option[FallbackReason]] = Nil,
      filter: () => Option[FallbackReason] = () => None) {

    /** With `reason`, made before the types are. */
    def checkFirst(reason: => Option[FallbackReason]): Checks =
      new Checks(signature, name, inputs, first :+ (() => reason), own, filter)

    /** With `reason`, made after the types and before the FILTER clause. */
    def check(reason: => Option[FallbackReason]): Checks =
      new Checks(signature, name, inputs, first, own :+ (() => reason), filter)

    /** With a check of FILTER (WHERE `condition`): see [[Signature.filterReason]]. */
    def filtered(
        condition: Option[Expression],
        shownAs: String = name,
        refused: Boolean = false): Checks =
      new Checks(signature, name, inputs, first, own,
        () => filterReason(shownAs, condition, refused))

    /** The first reason a check gives, if any does. */
    def refusal: Option[FallbackReason] = {
      val checks = first ++ Seq(() => signature.typeReason(name, inputs)) ++ own :+ filter
      checks.iterator.map(_()).collectFirst { case Some(reason) => reason }
    }

    /** The spec `spec` when every check passes, else the first reason. */
    def planned[S](spec: => S): Either[FallbackReason, S] = refusal.toLeft(spec)

    /**
     * When every check passes, the spec `spec` builds over the shape of `call`'s frame, or the
     * reason that frame is not supported ([[AggregateFamily.framed]]); else the first reason.
     * `spec` is asked for its builder before the frame is checked.
     */
    def framed[S](call: WindowCall)(spec: => FrameShape => S): Either[FallbackReason, S] =
      refusal.toLeft(()).flatMap { _ =>
        val build = spec
        AggregateFamily.framed(name, call.frame, call.orderSpec)(build)
      }
  }
}
